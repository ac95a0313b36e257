FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY pyproject.toml README.md ./
COPY service ./service
COPY migrations ./migrations
COPY docs ./docs
# The JavaScript rules engine's modules, served at /static/engine/ to the play page.
COPY clients/js/src ./clients/js/src
COPY gunicorn.conf.py ./
# gcc builds the solver's C search (without it the solver falls back to pure Python).
# Editable: create_app finds migrations/ and docs/ beside the package.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && pip install --no-cache-dir -e . \
    && apt-get purge -y gcc libc6-dev && apt-get autoremove -y && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /app app
USER app
ENV BIND=0.0.0.0:8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
CMD ["gunicorn", "-c", "gunicorn.conf.py", "service:create_app()"]
