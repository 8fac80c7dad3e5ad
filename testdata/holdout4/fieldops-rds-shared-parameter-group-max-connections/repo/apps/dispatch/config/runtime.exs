import Config

if config_env() == :prod do
  config :dispatch, Dispatch.Repo,
    url: System.fetch_env!("DATABASE_URL"),
    pool_size: String.to_integer(System.get_env("POOL_SIZE", "12")),
    queue_target: 500,
    queue_interval: 2_000,
    ssl: true

  config :dispatch, DispatchWeb.Endpoint,
    url: [host: "dispatch.brightline.example", port: 443, scheme: "https"],
    http: [ip: {0, 0, 0, 0}, port: 4000],
    secret_key_base: System.fetch_env!("SECRET_KEY_BASE")
end
