# racetrack in a container: the server with the page and both engines
# (the wasm build is made here and embedded in the binary). It listens
# beyond loopback, so it serves HTTPS with the certificate mounted at
# /etc/racetrack/tls and requires a token (RACETRACK_TOKEN, or one it
# generates and prints with a login URL):
#
#   docker build -t racetrack .
#   docker run --rm -p 8080:8080 -v racetrack-data:/data -v "$PWD/tls:/etc/racetrack/tls:ro" \
#     -e RACETRACK_TOKEN="$(openssl rand -hex 32)" racetrack
#   docker run --rm racetrack verify -scenario vitess-messager -preset lock-level -exhaustive bfs
#
# See docs/deployment.md (and deploy/ for a NATS cluster of workers).
FROM golang:1.27.3-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN make wasm \
 && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/racetrack ./cmd/racetrack \
 && mkdir /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/racetrack /usr/local/bin/racetrack
COPY --from=build --chown=nonroot:nonroot /out/data /data
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/racetrack"]
CMD ["serve", "-addr", "0.0.0.0:8080", "-data", "/data/racetrack.db", "-tls-cert", "/etc/racetrack/tls/tls.crt", "-tls-key", "/etc/racetrack/tls/tls.key"]
