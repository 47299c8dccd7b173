# Regenerates legacy_vectors.json: draws of NumPy's legacy RandomState
# (np.random.seed + the module-level samplers), checked by legacy_test.go.
# Run with a python3 that has numpy (Debian: /usr/bin/python3 with
# python3-numpy), from this directory:
#   /usr/bin/python3 gen_legacy_vectors.py > legacy_vectors.json
# The gamma and mixed cases are the ones internal/load checked before the
# sampler moved here (vllm bench serve's np.random.gamma arrival gaps).
import json
import numpy as np

out = {"numpy_version": np.__version__, "streams": [], "gamma": [], "mixed": None, "interleaved": None}

# One sampler per stream, fresh seed each time.
for seed in [0, 1, 42, 2**32 - 1]:
    rs = np.random.RandomState(seed)
    raw = [int(x) for x in rs._bit_generator.random_raw(700)]  # crosses a twist
    rs = np.random.RandomState(seed)
    uni = [float(x) for x in rs.random_sample(50)]
    rs = np.random.RandomState(seed)
    # An odd count, then one more call: the cached second value carries over.
    normal = [float(x) for x in rs.standard_normal(49)] + [float(rs.standard_normal())]
    rs = np.random.RandomState(seed)
    expo = [float(x) for x in rs.standard_exponential(50)]
    sg = {}
    for shape in [0.0, 0.2, 1.0, 3.0]:
        rs = np.random.RandomState(seed)
        sg[repr(shape)] = [float(x) for x in rs.standard_gamma(shape, 30)]
    out["streams"].append({"seed": seed, "raw32": raw, "random_sample": uni,
                           "standard_normal": normal, "standard_exponential": expo,
                           "standard_gamma": sg})

for seed, shape, scale in [(0, 1.0, 0.5), (0, 0.5, 1.0), (7, 2.5, 0.1), (123, 0.1, 3.0), (2**32 - 1, 30.0, 1.0)]:
    np.random.seed(seed)
    out["gamma"].append({"seed": seed, "shape": shape, "scale": scale,
                         "values": [float(np.random.gamma(shape, scale)) for _ in range(50)]})

# Shapes mixed in one stream exercise the cached second normal value.
np.random.seed(5)
mixed = []
for i in range(40):
    mixed.append(float(np.random.gamma([0.3, 1.0, 4.0][i % 3], 1.0)))
out["mixed"] = {"seed": 5, "shapes": [0.3, 1.0, 4.0], "values": mixed}

# randint, normals and gammas from one generator: all share the MT state
# and the normal cache (a randint between two normals does not clear it).
np.random.seed(11)
steps = []
for i in range(30):
    k = i % 4
    if k == 0:
        steps.append({"op": "randint", "low": 0, "high": 1000, "out": float(np.random.randint(0, 1000))})
    elif k == 1:
        steps.append({"op": "normal", "out": float(np.random.standard_normal())})
    elif k == 2:
        steps.append({"op": "gamma", "shape": 2.0, "scale": 1.5, "out": float(np.random.gamma(2.0, 1.5))})
    else:
        steps.append({"op": "uniform", "out": float(np.random.random_sample())})
out["interleaved"] = {"seed": 11, "steps": steps}
print(json.dumps(out, indent=1))
