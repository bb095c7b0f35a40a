FROM python:3.11-slim

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bots ./bots
COPY protocol ./protocol
COPY search ./search
RUN pip install --no-cache-dir . && useradd --create-home --uid 10001 bots

USER bots
# Go's numba kernels are compiled once here, not at every container start.
ENV NUMBA_CACHE_DIR=/home/bots/.numba-cache
RUN python -c "from bots.go.players import warm; warm()"
# docker run bots --game twilight --host H --port P
# docker run bots --game gopher --server http://HOST:8080/ --group N --name NAME --password PW --games 0
# docker run bots --game go --cgos yss-aya.com:6809 --name NAME --password PW --games 0
ENTRYPOINT ["bots"]
CMD ["--help"]
