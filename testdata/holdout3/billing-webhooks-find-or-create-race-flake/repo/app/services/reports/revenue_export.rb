# frozen_string_literal: true

module Reports
  # Monthly revenue export for finance (CSV, emailed on the 2nd).
  class RevenueExport
    STATEMENT_TIMEOUT = "60s"

    def call(month)
      Invoice.connection.execute("SET LOCAL statement_timeout = '#{STATEMENT_TIMEOUT}'")
      Invoice.where(period_start: month.all_month).where(status: "paid").group(:currency).sum(:amount_paid)
    end
  end
end
