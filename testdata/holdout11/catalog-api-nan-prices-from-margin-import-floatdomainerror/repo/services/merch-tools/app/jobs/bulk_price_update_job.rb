# frozen_string_literal: true

# Applies a merchandiser's margin spreadsheet: new price = unit cost / (1 - margin).
class BulkPriceUpdateJob
  include Sidekiq::Job

  def perform(upload_id)
    upload = PriceUpload.find(upload_id)
    rows = SpreadsheetReader.new(upload.file).rows
    rows.each_with_index do |row, i|
      cost = row["unit_cost"].to_f
      margin = row["margin"].to_f
      price = (cost / (1 - margin)).round(2)
      Product.where(sku: row["sku"]).update_all("price.amount" => price)
      logger.info("row=#{i + 2} sku=#{row['sku']} cost=#{cost} margin=#{margin} new_price=#{price}")
    end
    logger.info("bulk_price_update finished upload=#{upload.id} file=#{upload.filename} rows=#{rows.size} user=#{upload.user_email}")
  end
end
