# frozen_string_literal: true

module Fortnox
  class PushInvoiceJob
    include Sidekiq::Job
    sidekiq_options queue: :fortnox, retry: 5

    def perform(tenant_id, invoice_id)
      invoice = Invoice.find(invoice_id)
      token = TokenStore.new(tenant_id).access_token
      Fortnox::Client.new(token).upsert_invoice(InvoiceMapper.call(invoice))
    end
  end
end
