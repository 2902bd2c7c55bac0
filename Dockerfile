# rbfviz demo image: the Streamlit app on port 8501, CPU-only torch, non-root, read-only-root friendly,
# with the documentation site built in and served by the app at /app/static/docs/index.html.
#   docker build -t rbfviz .
#   docker run --rm -p 8501:8501 --read-only --tmpfs /tmp rbfviz
FROM python:3.11-slim AS base

# HOME=/tmp: the only writable place under --read-only --tmpfs /tmp (Streamlit, torch and friends
# look under $HOME / $XDG_CACHE_HOME for config and caches).
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
    MALLOC_ARENA_MAX=2 \
    HOME=/tmp XDG_CACHE_HOME=/tmp/.cache XDG_CONFIG_HOME=/tmp/.config MPLCONFIGDIR=/tmp/.matplotlib \
    STREAMLIT_SERVER_HEADLESS=true STREAMLIT_BROWSER_GATHER_USAGE_STATS=false

WORKDIR /app

# CPU-only torch first: PyPI's Linux torch is the CUDA build (several GB). The PyTorch CPU index is an
# *extra* index, so pip's own settings (PIP_FIND_LINKS, pip.conf find-links, a mirror as index-url)
# still apply; "2.13.0+cpu" sorts above "2.13.0", so the CPU build wins wherever it is found.
# requirements.txt pins torch==2.13.0, which the +cpu build satisfies, so the second step keeps it.
COPY requirements.txt .
# torch's C++ headers and C++ test binaries (~145 MB) serve only C++ extensions and torch's own tests.
RUN pip install --extra-index-url https://download.pytorch.org/whl/cpu "torch==2.13.0" \
 && pip install -r requirements.txt \
 && python -c "import sys, torch; sys.exit('expected a CPU torch build' if torch.version.cuda else 0)" \
 && torch_dir=$(python -c "import importlib.util as u, os; print(os.path.dirname(u.find_spec('torch').origin))") \
 && rm -rf "$torch_dir/include" "$torch_dir/test" \
 && groupadd --gid 10001 app \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /tmp --shell /usr/sbin/nologin app

# curl: Kubernetes' httpGet probes need nothing in the image, but `podman kube play` turns the liveness
# probe into a health check that runs curl inside the container.
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends curl \
 && apt-get clean && rm -rf /var/lib/apt/lists/*

# The documentation site (mkdocs.yml), built in a stage of its own so that its tools stay out of the
# image: the docs block of requirements-dev.txt, pinned by the whole file. The build executes the tour
# notebook and `rbfviz reproduce`, as CI's docs step does; the screenshots come from the repository.
FROM base AS docs
COPY requirements-dev.txt .
RUN sed -n '/^# >>> docs/,/^# <<< docs/p' requirements-dev.txt > /tmp/docs-requirements.txt \
 && pip install -c requirements-dev.txt -r /tmp/docs-requirements.txt
COPY . .
RUN NO_MKDOCS_2_WARNING=1 mkdocs build --strict --quiet

# Streamlit's front-end files compressed once, as small as the formats go (deploy/precompress: Zopfli's
# gzip and Brotli 11, about a minute of CPU), so that the app's process sends them compressed from the
# first student on without compressing anything itself (ui/compression.py reads build/precompressed/).
FROM base AS precompress
COPY requirements-dev.txt deploy/precompress /tmp/precompress/
RUN pip install -c /tmp/precompress/requirements-dev.txt brotli zopfli \
 && python /tmp/precompress/precompress /app/build/precompressed

FROM base
# Code stays root-owned and read-only for the app user; the site lands in static/docs/, which
# Streamlit serves (.streamlit/config.toml: server.enableStaticServing).
COPY . .
COPY --from=docs /app/static/docs /app/static/docs
COPY --from=precompress /app/build/precompressed /app/build/precompressed
RUN chmod -R a+rX,go-w /app

USER 10001:10001
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request as u; sys.exit(u.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read() != b'ok')"]
ENTRYPOINT ["python", "-m", "streamlit", "run", "app.py", \
            "--server.port=8501", "--server.address=0.0.0.0", "--server.headless=true"]
