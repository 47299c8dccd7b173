#!/usr/bin/python3
"""Write testdata/dataset/sharegpt_sample.json: a small ShareGPT-format
dataset of original conversations (written for llmbench; no third-party
text), with a few entries that vLLM's ShareGPT rules must drop.

    /usr/bin/python3 scripts/dataset/gen_sharegpt_sample.py > testdata/dataset/sharegpt_sample.json
"""
import json
import sys

QA = [
    ("How do I keep basil alive on a kitchen windowsill?",
     "Give it the sunniest window you have, at least six hours of light a day. Water when the top centimetre of soil feels dry, and pinch off flower buds so the plant keeps putting energy into leaves. Harvest from the top, just above a pair of leaves, to make it bushier."),
    ("Explain what a hash map is to someone who knows arrays.",
     "An array finds an element by its position. A hash map lets you find an element by a key instead, such as a name. It runs the key through a hash function that turns it into a number, uses that number to pick a slot in an internal array, and stores the value there. Lookups are usually constant time, but two keys can land in the same slot, so the map needs a way to resolve those collisions."),
    ("Write a haiku about a delayed train.",
     "Platform lights flicker\nthe timetable rearranges\nmy coffee goes cold"),
    ("What is the difference between weather and climate?",
     "Weather is what the atmosphere does over hours or days: today's rain, tomorrow's wind. Climate is the long-run pattern of weather in a place, usually summarised over thirty years or more. A cold week says little about climate; a shift in the average over decades does."),
    ("Can you suggest a name for a bakery that only sells bread made with rye?",
     "A few ideas: Rye and Shine, The Dark Crumb, Caraway Corner, Sour Hour, or Grain of Truth. If you want something plainer, Rye House works well on a sign."),
    ("Why does my sourdough come out flat?",
     "Flat loaves usually mean the dough was over-proofed, the starter was weak, or the shaping did not build enough surface tension. Check that your starter doubles within six hours of feeding, shorten the final proof if the dough feels slack and bubbly, and practise pulling the dough tight against the bench when you shape it."),
    ("Summarise the plot of a heist story in three sentences, any story you invent.",
     "A retired locksmith is pulled back for one last job: lifting a violin from a museum that is closing for renovation. Her crew plans around the builders' schedule, but the violin turns out to be a copy the museum director swapped months earlier. The locksmith ends up returning the real violin, which she finds in the director's car, and keeps the reward."),
    ("What does HTTP status 429 mean?",
     "429 Too Many Requests means the server is rate limiting you: you sent more requests than it allows in some window. Well-behaved clients slow down, and if the response carries a Retry-After header they wait that long before trying again."),
    ("Give me three warm-up exercises before running.",
     "Try leg swings, twenty forward and back on each leg; walking lunges with a twist, ten per side; and a minute of high knees at an easy pace. Together they take about five minutes and get the hips and ankles moving."),
    ("How many minutes should I boil an egg for a runny yolk?",
     "Lower the egg into water that is already boiling and cook it for six minutes, then move it to cold water for a minute so it stops cooking. Large eggs straight from the fridge may need an extra thirty seconds."),
    ("Translate 'the library opens at nine' into French.",
     "La bibliothèque ouvre à neuf heures."),
    ("What is a good way to learn touch typing?",
     "Pick a free typing tutor that starts with the home row, practise fifteen minutes a day, and resist looking at the keyboard even when it slows you down. Accuracy first; speed follows within a few weeks."),
    ("Is it safe to leave a laptop plugged in all the time?",
     "Modern laptops stop charging when the battery is full, so it is safe. Batteries age faster when kept at one hundred percent and warm, though, so if your laptop offers a charge limit setting around eighty percent, turning it on will help the battery last longer."),
    ("Describe the smell of rain on dry ground.",
     "It is earthy and a little sweet, like wet clay and crushed leaves, with a sharp clean edge that arrives a moment before the first heavy drops."),
    ("What should I check before buying a used bicycle?",
     "Look at the frame for cracks or bends, especially near the welds. Spin both wheels to see whether they wobble, squeeze the brakes, shift through all the gears, and check the chain for rust or stretch. Ask for the purchase receipt if the price seems too low."),
    ("Why do onions make you cry?",
     "Cutting an onion breaks its cells and releases enzymes that turn sulfur compounds into a volatile gas. When that gas reaches your eyes it forms a mild irritant, and your eyes water to wash it away. A sharp knife and a cold onion release less of it."),
    ("Help me write a polite message asking a neighbour to turn their music down.",
     "Hi, I'm from the flat next door. I hope you're well! I wanted to mention that music carries quite a bit through the wall in the evenings, and I have early starts for work. Would you mind keeping it a bit lower after ten? Thanks so much, and let me know if anything from my side ever bothers you."),
    ("What is the boiling point of water at the top of a high mountain?",
     "It is lower than one hundred degrees Celsius because the air pressure is lower. At about three thousand metres water boils near ninety degrees, which is why pasta and beans take longer to cook at altitude."),
    ("Write a short limerick about a cat who hates Mondays.",
     "A tabby named Fig hated Mondays,\nShe preferred them as long lazy sundays,\nShe would sit on the keys\nOf her owner with ease,\nAnd delete all his work for the fun days."),
    ("How do I center a div with CSS?",
     "Make the parent a flex container and centre on both axes: display: flex; justify-content: center; align-items: center; on the parent. If the parent needs to fill the screen, give it a height such as 100vh."),
    ("What is compound interest?",
     "Compound interest is interest earned on both your original amount and the interest already added to it. Because the base grows each period, the balance grows faster over time than it would with simple interest, which is paid only on the original amount."),
    ("Recommend a board game for four players who have never played board games.",
     "Try a cooperative game where everyone wins or loses together, because nobody feels left behind while learning the rules. Games where players lay tiles to build a shared landscape are also easy to teach in ten minutes and finish within an hour."),
    ("How can I make my home office quieter?",
     "Soft surfaces absorb sound: a rug, heavy curtains and a full bookshelf make a noticeable difference. Seal gaps around the door with a draught strip, and put a felt pad under anything that vibrates, such as a printer."),
    ("Explain recursion with a real-world example.",
     "Imagine standing in a queue and wanting to know your position. You ask the person in front of you for theirs and add one. They do the same, and so on, until someone at the front says 'I am first'. Each answer depends on a smaller version of the same question, and the person at the front is the base case that stops it."),
    ("What are the main parts of a cover letter?",
     "An opening that names the role and why you want it; one or two paragraphs matching your experience to what the job asks for, with a concrete example; and a short close that thanks the reader and invites them to contact you."),
    ("Why is the sky blue?",
     "Sunlight contains all colours, and the molecules in the air scatter short blue wavelengths much more strongly than long red ones. That scattered blue light reaches your eyes from every direction, so the whole sky looks blue. At sunset the light crosses more air, most of the blue is scattered away, and reds and oranges remain."),
    ("Give me a simple weekly meal plan for one person on a budget.",
     "Cook twice and eat four times. Sunday: a big pot of lentil and vegetable soup, enough for three lunches. Wednesday: a tray of roasted chickpeas, potatoes and peppers for dinners. Keep eggs, rice, frozen peas and tinned tomatoes for quick meals on the other days, and buy fruit that is in season."),
    ("How do noise-cancelling headphones work?",
     "Small microphones on the ear cups record the sound around you, and a chip generates a mirror-image wave that is played through the speakers. When the two waves meet they largely cancel out, which works best on steady low sounds like engines and air conditioning."),
    ("What should I pack for a two-day hike?",
     "Water and a way to purify more, food for both days plus a spare meal, layers including a waterproof jacket, a map and charged phone, a headlamp, a small first aid kit, sun protection and a shelter suited to the night-time temperature."),
    ("Write a product description for a ceramic mug that keeps coffee warm.",
     "Our double-walled stoneware mug holds 350 ml and keeps your coffee hot for twice as long as a regular cup. The outside stays cool to the touch, the matte glaze feels good in the hand, and it is safe in the dishwasher and microwave."),
    ("What is the capital of Australia?",
     "Canberra is the capital of Australia. It was purpose-built as a compromise between Sydney and Melbourne, which both wanted the title."),
    ("How do I stop procrastinating on a big report?",
     "Shrink the first step until it is almost silly: open the document and write the headings. Then work in short blocks, twenty-five minutes on and five off, and decide what each block is for before you start it. Progress makes the next block easier."),
    ("List four uses for baking soda around the house.",
     "It deodorises a fridge if you leave an open box inside, scrubs stains from sinks as a paste with water, loosens burnt food when sprinkled into a soaking pan, and freshens carpets when sprinkled on and vacuumed up after an hour."),
    ("Can you explain what latency and throughput mean for a web server?",
     "Latency is how long one request takes from the moment it is sent until the answer arrives. Throughput is how many requests the server completes per second. A server can have high throughput and still feel slow if each request waits in a long queue, which is why both numbers matter when you measure it."),
    ("What is a good first programming language?",
     "Python is a common choice because its syntax is readable and it is used for everything from scripting to data analysis. If you mainly want to build web pages, JavaScript lets you see results in a browser right away."),
    ("Tell me a fun fact about octopuses.",
     "An octopus has three hearts: two pump blood through the gills and one pumps it to the rest of the body. The main heart actually pauses while the octopus swims, which is one reason they prefer crawling."),
    ("How can I tell if a melon is ripe?",
     "Pick it up: a ripe melon feels heavy for its size. Smell the end where the stem was; it should smell sweet. For cantaloupe-type melons the skin netting should be raised and the end should give slightly when pressed."),
    ("Draft a two-line reminder for a team meeting moved to Thursday.",
     "Reminder: this week's team meeting moves to Thursday at 10:00, same room.\nPlease bring your status updates as usual."),
    ("What is the difference between a virus and bacteria?",
     "Bacteria are single living cells that can grow and divide on their own, and many are harmless or helpful. Viruses are much smaller, are not cells, and can only reproduce inside the cells of a host. Antibiotics work against bacteria but not against viruses."),
    ("Suggest a stretching routine for people who sit all day.",
     "Every hour, stand and do a chest opener with hands clasped behind you, a standing hip flexor stretch on each side, and slow neck rolls. In the evening, add a seated forward fold and a figure-four stretch for the hips, holding each for thirty seconds."),
    ("How does a refrigerator keep food cold?",
     "A refrigerant liquid evaporates in coils inside the fridge, absorbing heat from the air as it turns to gas. A compressor then squeezes the gas, which releases that heat through coils at the back, and the cycle repeats."),
    ("Make up a riddle whose answer is 'a shadow'.",
     "I follow you all day but vanish at night; I grow tall in the evening and short at noon. What am I?"),
    ("Why do we have leap years?",
     "The Earth takes about 365.24 days to orbit the Sun. Adding a day every four years keeps the calendar aligned with the seasons, and skipping it in most century years fixes the small overcorrection."),
    ("What is a good way to remember people's names?",
     "Repeat the name once when you are introduced, use it in your next sentence, and link it to something vivid about the person. Writing it down afterwards also helps it stick."),
]

# Entries the rules must drop or keep at the edges.
SPECIAL = [
    # Fewer than two turns: removed by the load filter.
    {"id": "one-turn", "conversations": [{"from": "human", "value": "Is anyone there?"}]},
    # No conversations key: removed by the load filter.
    {"id": "no-conversations", "text": "A stray record without turns."},
    # Prompt shorter than 4 tokens: dropped by is_valid_sequence.
    {"id": "short-prompt", "conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello! How can I help you today with anything at all?"}]},
    # Completion shorter than 4 tokens: dropped unless --sharegpt-output-len.
    {"id": "short-answer", "conversations": [{"from": "human", "value": "What is two plus two, written as a digit?"}, {"from": "gpt", "value": "4"}]},
    # Prompt longer than 1024 tokens: dropped.
    {"id": "long-prompt", "conversations": [{"from": "human", "value": "Please proofread this log: " + " ".join(["the service restarted at noon and again at midnight"] * 120)}, {"from": "gpt", "value": "The log repeats one line; the service restarted twice a day."}]},
    # Prompt + completion over 2048 tokens: dropped.
    {"id": "long-total", "conversations": [{"from": "human", "value": "Expand these notes into a full essay: " + " ".join(["rivers carry sediment to the sea"] * 100)}, {"from": "gpt", "value": " ".join(["Rivers shape the land by moving sediment from mountains to the coast."] * 150)}]},
    # Three turns: kept, only the first two are used.
    {"id": "three-turns", "conversations": [{"from": "human", "value": "Name a colour that starts with the letter v."}, {"from": "gpt", "value": "Violet is one, and vermilion is another."}, {"from": "human", "value": "Thanks!"}]},
]


def main():
    data = []
    for i, (q, a) in enumerate(QA):
        data.append({"id": f"conv-{i:02d}", "conversations": [
            {"from": "human", "value": q}, {"from": "gpt", "value": a}]})
    # Spread the special entries through the file.
    for k, s in enumerate(SPECIAL):
        data.insert(3 + 7 * k, s)
    json.dump(data, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
