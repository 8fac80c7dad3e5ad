class TicketExportJob < ApplicationJob
  queue_as :exports

  def perform(account_id, requested_by_id)
    csv = TicketExport.new(Account.find(account_id)).to_csv
    key = "tmp/exports/#{account_id}/#{SecureRandom.uuid}.csv"
    S3_CLIENT.put_object(bucket: ENV.fetch("ATTACHMENTS_BUCKET"), key: key, body: csv)
    ExportMailer.ready(requested_by_id, key).deliver_later
  end
end
