# frozen_string_literal: true

Rack::Attack.throttle("req/ip", limit: 600, period: 5.minutes) { |req| req.ip unless req.path.start_with?("/assets") }
Rack::Attack.throttle("logins/email", limit: 10, period: 60.seconds) do |req|
  req.params["email"].to_s.downcase.presence if req.path == "/login" && req.post?
end
