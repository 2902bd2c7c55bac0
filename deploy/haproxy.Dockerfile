# HAProxy for deploy/compose.yaml: the official image plus Streamlit's front-end files compressed once
# (deploy/precompress: Zopfli's gzip and Brotli 11), answered from memory by deploy/static.lua.
#   docker build -f deploy/haproxy.Dockerfile -t rbfviz-haproxy .      (compose builds it itself)
# The files come from the same Streamlit release as the app image (the pin in requirements.txt):
# their names carry a content hash, so a mismatch would only mean they are not found here and
# HAProxy's on-the-fly gzip takes over. Only the package's files are needed, not its dependencies.
FROM docker.io/library/python:3.11-slim AS assets
COPY requirements.txt deploy/precompress /build/
RUN pip install --no-cache-dir --disable-pip-version-check --no-deps --target /build/site \
      "$(grep -E '^streamlit==' /build/requirements.txt)" brotli==1.2.1 zopfli==0.4.3 \
 && PYTHONPATH=/build/site python /build/precompress /static --source /build/site/streamlit/static/static

FROM docker.io/library/haproxy:2.8
COPY --from=assets /static /usr/local/etc/haproxy/static
COPY deploy/haproxy.cfg deploy/static.lua /usr/local/etc/haproxy/
ENV RBFVIZ_STATIC_DIR=/usr/local/etc/haproxy/static
