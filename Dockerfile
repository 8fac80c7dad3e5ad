# syntax=docker/dockerfile:1.7
#
# AutoHeal bot image: a static Go binary on distroless (CA certificates,
# tzdata, /etc/passwd with the nonroot user; no shell, no package manager).
#
#   docker build -t autoheal:dev --build-arg VERSION=$(git describe --tags --always) \
#     --build-arg REVISION=$(git rev-parse HEAD) --build-arg CREATED=$(date -u +%FT%TZ) .
#   docker run --rm autoheal:dev --help
#
# Multi-platform: docker buildx build --platform linux/amd64,linux/arm64 …
# (the Go toolchain cross-compiles; nothing runs under emulation).

ARG GO_VERSION=1.26

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
# Dependencies first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download
COPY . .
ARG TARGETOS=linux
ARG TARGETARCH=amd64
ARG VERSION=dev
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/bot ./cmd/bot

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="autoheal" \
      org.opencontainers.image.description="Slack ChatOps bot that investigates production incidents and opens pull requests only after a human approves" \
      org.opencontainers.image.source="https://github.com/autoheal/autoheal" \
      org.opencontainers.image.url="https://github.com/autoheal/autoheal" \
      org.opencontainers.image.documentation="https://github.com/autoheal/autoheal/tree/main/deploy/helm/autoheal" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}"
COPY --from=build /out/bot /bot
# nonroot (65532:65532), matching the chart's securityContext.
USER 65532:65532
# /alerts/alertmanager, /healthz, /readyz, /metrics (AUTOHEAL_HTTP_ADDR).
EXPOSE 8080
ENTRYPOINT ["/bot"]
CMD ["serve"]
