redis = { url: ENV.fetch("REDIS_SHARED_URL"), db: 1, pool_timeout: 2 }

Sidekiq.configure_server do |config|
  config.redis = redis
end

Sidekiq.configure_client do |config|
  config.redis = redis
end
