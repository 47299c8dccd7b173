# llmbench as a container image for distributed runs on Kubernetes
# (deploy/k8s/, docs/distributed.md). Two stages: a static Go build
# (CGO_ENABLED=0: no libc, so it runs on a distroless base), then only the
# binary on gcr.io/distroless/static (CA certificates, tzdata, a nonroot
# user; no shell, hence `llmbench merge FOLDER` instead of a glob).
#
#   docker build -t llmbench:latest --build-arg VERSION=$(git describe --always --dirty) .
#   docker run --rm llmbench:latest --version
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/llmbench ./cmd/llmbench

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/llmbench /usr/local/bin/llmbench
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/llmbench"]
