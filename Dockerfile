FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY pyproject.toml README.md ./
COPY service ./service
COPY migrations ./migrations
COPY docs ./docs
COPY gunicorn.conf.py ./
# Editable: create_app finds migrations/ and docs/ beside the package.
RUN pip install --no-cache-dir -e . && useradd --system --home /app app
USER app
ENV BIND=0.0.0.0:8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
CMD ["gunicorn", "-c", "gunicorn.conf.py", "service:create_app()"]
