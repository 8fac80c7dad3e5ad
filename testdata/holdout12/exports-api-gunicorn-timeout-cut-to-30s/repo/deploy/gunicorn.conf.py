# Gunicorn settings for exports-api (systemd unit: exports-api.service on exports-{1,2}).
import multiprocessing
import os

bind = "127.0.0.1:8000"
worker_class = "gthread"
workers = int(os.environ.get("GUNICORN_WORKERS", multiprocessing.cpu_count()))
threads = 4

# Seconds a worker may stay silent before the arbiter kills it.
timeout = 30
graceful_timeout = 30
keepalive = 5

max_requests = 2000
max_requests_jitter = 200

accesslog = "-"
errorlog = "-"
loglevel = "info"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'
