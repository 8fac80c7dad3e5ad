# One-off: bring the historical orders of Lumen & Co (acquired in May) into our orders table.
# Their ids were pre-mapped by the data team into 9_106_400..9_120_004, "well above our sequence".
namespace :import do
  desc "Import Lumen & Co historical orders from the staging export"
  task brand_orders: :environment do
    path = ENV.fetch("EXPORT_PATH")
    rows = CSV.foreach(path, headers: true).map do |r|
      {
        id: r["mapped_id"].to_i,
        customer_id: r["customer_id"].to_i,
        status: r["status"],
        total_cents: r["total_cents"].to_i,
        currency: r["currency"],
        placed_at: Time.iso8601(r["placed_at"]),
        brand: "lumen",
        created_at: Time.iso8601(r["placed_at"]),
        updated_at: Time.current,
      }
    end
    rows.each_slice(1000) { |batch| Order.insert_all(batch) }
    ids = rows.map { |r| r[:id] }
    Rails.logger.info("import:brand_orders finished imported=#{rows.size} id_range=#{ids.min}..#{ids.max}")
  end
end
