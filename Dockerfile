# The bots daemon in a container.  Build: docker build -t bots .   (or: podman build -t bots .)
#
# Twilight, against a server on this host (a server on the host needs --network host):
#   docker run --rm --network host bots --game twilight --host 127.0.0.1 --port 5555
# Gopher, on a gnd server:
#   docker run --rm bots --game gopher --server http://HOST:8080/ --group N --name NAME --password PW --games 0
# Go, on CGOS:
#   docker run --rm bots --game go --cgos yss-aya.com:6809 --name NAME --password PW --games 0
# A GTP engine on stdin/stdout (for GoGui, twogtp, gnugo's match tools); -i keeps stdin open:
#   docker run -i --rm bots gtp go
# Every bot of a config file (see config/bots.toml):
#   docker run --rm --network host -v "$PWD/config/bots.toml:/home/bots/bots.toml:ro" bots daemon --config bots.toml
# `docker stop` is a clean stop (exit 0).  The image also runs --read-only and as any --user:
# the compiled kernels below are then copied to a writable /tmp at start.
# tools/container-check builds this image and checks all of the above.

# -- build: the wheel, installed with its dependencies into a venv --------------------------
FROM python:3.11-slim AS build
# A venv: Debian's own python3 refuses `pip install` outside one (PEP 668).
RUN python -m venv /opt/bots
WORKDIR /src
# The dependencies first, from pyproject.toml alone: a layer that a change of the sources
# does not rebuild.  Plotting (matplotlib, the `plot` extra: about 100 MiB) is left out: a
# daemon draws nothing.
COPY pyproject.toml ./
RUN /opt/bots/bin/python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" > /tmp/requirements.txt \
 && /opt/bots/bin/pip install --no-cache-dir --disable-pip-version-check --requirement /tmp/requirements.txt
COPY README.md ./
COPY bots ./bots
COPY protocol ./protocol
COPY search ./search
RUN /opt/bots/bin/pip wheel --no-cache-dir --disable-pip-version-check --no-deps --wheel-dir /wheels . \
 && /opt/bots/bin/pip install --no-cache-dir --disable-pip-version-check --no-deps /wheels/*.whl \
 && /opt/bots/bin/pip uninstall --yes --disable-pip-version-check pip setuptools

# -- run: the venv alone (no source tree, no wheel, no pip), a non-root user, the kernels ----
FROM python:3.11-slim
RUN useradd --create-home --uid 10001 bots
# Copied, not installed from the wheel with RUN --mount=from=build: buildah (podman build)
# reuses such a RUN's cached layer when only the mounted wheel changed.
COPY --from=build /opt/bots /opt/bots
# generic: a kernel cache any x86-64 host loads (numba keys it by CPU).  Its playouts measured
# 14-22% slower than native here, its search iterations the same within noise
# (docs/benchmarks/startup.md); for one known CPU build with --build-arg CPU=<name>, the name
# from: python -c "import llvmlite.binding as ll; print(ll.get_host_cpu_name())"
ARG CPU=generic
ENV PATH=/opt/bots/bin:$PATH \
    BOTS_CACHE_DIR=/home/bots/.cache/bots \
    NUMBA_CPU_NAME=$CPU
# Not the sources' directory: Python 3.11's forkserver workers import from the working
# directory (cpython #117378), and nothing here may shadow the installed package.
WORKDIR /home/bots
USER bots
# Every game's numba kernels, compiled once here for a generic x86-64 CPU (a cache keyed by
# this build machine's CPU model would recompile on any other), readable by any --user.
RUN bots warm \
 && find /home/bots/.cache/bots/numba -name '*.nbi' | grep -q . \
 && chmod -R a+rX /home/bots/.cache
ENTRYPOINT ["bots"]
CMD ["--help"]
