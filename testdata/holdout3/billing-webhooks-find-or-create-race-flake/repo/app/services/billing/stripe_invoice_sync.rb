# frozen_string_literal: true

module Billing
  # Mirrors a Stripe invoice into our invoices table. Called for every
  # invoice.* webhook (created, finalized, paid, payment_succeeded,
  # payment_failed, voided); Stripe sends several of them for the same
  # invoice within milliseconds when a subscription renews.
  class StripeInvoiceSync
    def initialize(event)
      @event = event
      @data = event.data.object
    end

    def call
      account = Account.find_by!(stripe_customer_id: @data.customer)
      invoice = account.invoices.find_or_create_by!(stripe_invoice_id: @data.id) do |inv|
        inv.number = @data.number
        inv.currency = @data.currency
      end

      invoice.update!(
        amount_due: @data.amount_due,
        amount_paid: @data.amount_paid,
        status: @data.status,
        hosted_url: @data.hosted_invoice_url,
        period_start: Time.zone.at(@data.period_start),
        period_end: Time.zone.at(@data.period_end),
      )
      Billing::InvoiceMailer.paid(invoice).deliver_later if @event.type == "invoice.paid"
      invoice
    end
  end
end
