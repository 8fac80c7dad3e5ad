# frozen_string_literal: true

module Fortnox
  # Holds the OAuth tokens of one Fortnox tenant in Redis. Fortnox refresh
  # tokens are single-use: each refresh returns a new refresh token and
  # invalidates the one that was sent.
  class TokenStore
    SKEW = 60

    def initialize(tenant_id, redis: Kvarn.redis, oauth: Fortnox::OAuth.new)
      @tenant_id = tenant_id
      @redis = redis
      @oauth = oauth
    end

    def access_token
      tokens = load
      tokens = refresh!(tokens) if tokens["expires_at"].to_i - SKEW < Time.now.to_i
      tokens["access_token"]
    end

    private

    def refresh!(tokens)
      Rails.logger.info("fortnox token refresh tenant=#{@tenant_id} thread=#{Thread.current.name}")
      fresh = @oauth.refresh(tokens.fetch("refresh_token"))
      data = {
        "access_token" => fresh.access_token,
        "refresh_token" => fresh.refresh_token,
        "expires_at" => Time.now.to_i + fresh.expires_in
      }
      @redis.set(key, JSON.dump(data))
      data
    end

    def load
      JSON.parse(@redis.get(key) || raise(Fortnox::NotConnected, @tenant_id))
    end

    def key
      "fortnox:tokens:#{@tenant_id}"
    end
  end
end
