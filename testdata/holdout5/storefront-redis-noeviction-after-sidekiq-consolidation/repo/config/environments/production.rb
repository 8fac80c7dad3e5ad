Rails.application.configure do
  config.cache_classes = true
  config.eager_load = true
  config.cache_store = :redis_cache_store, { url: ENV.fetch("REDIS_SHARED_URL"), namespace: "cache", pool: { size: 5 } }
  config.session_store :cache_store, key: "_hollowbrook_session", expire_after: 14.days
  config.log_tags = [:request_id]
  config.active_job.queue_adapter = :sidekiq
end
