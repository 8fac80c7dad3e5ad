import multiprocessing
import os

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("GUNICORN_WORKERS", multiprocessing.cpu_count() * 2 + 1))
worker_class = "gthread"
threads = 4
timeout = 30
accesslog = "-"
access_log_format = '%(h)s - - [%(t)s] "%(r)s" %(s)s %(b)s %(L)ss "%(a)s"'
