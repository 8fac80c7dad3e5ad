# gunicorn settings for seatmap-api
bind = "0.0.0.0:8000"
workers = 8
worker_class = "sync"
# Load Django once in the master and fork: saves ~180 MB per pod.
preload_app = True
timeout = 30
graceful_timeout = 20
keepalive = 5
accesslog = "-"
errorlog = "-"
loglevel = "info"
