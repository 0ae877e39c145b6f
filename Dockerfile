# One image for web, worker and beat; the command picks the role.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 QM_ENV=production QM_DATA_DIR=/var/lib/quartermaster
WORKDIR /app
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN SECRET_KEY=build-only-collectstatic-key-not-used-at-run-time-0123456789 ALLOWED_HOSTS=build \
    python manage.py collectstatic --noinput
RUN useradd --system --uid 10001 quartermaster && mkdir -p /var/lib/quartermaster \
    && chown quartermaster /var/lib/quartermaster
USER 10001
EXPOSE 8000
CMD ["gunicorn", "-c", "python:portal.gunicorn", "portal.wsgi:application"]
