# frozen_string_literal: true

# 4 workers x 5 threads per container (PLAT-611: more headroom for webhooks and the API)
workers Integer(ENV.fetch("WEB_CONCURRENCY", 4))
max_threads_count = Integer(ENV.fetch("RAILS_MAX_THREADS", 5))
threads max_threads_count, max_threads_count

preload_app!

port ENV.fetch("PORT", 3000)
environment ENV.fetch("RAILS_ENV", "production")

on_worker_boot do
  ActiveRecord::Base.establish_connection
end
