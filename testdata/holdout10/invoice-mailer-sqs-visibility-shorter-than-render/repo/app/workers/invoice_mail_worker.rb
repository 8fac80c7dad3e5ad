class InvoiceMailWorker
  include Shoryuken::Worker
  shoryuken_options queue: "invoice-mail", auto_delete: true, body_parser: :json

  def perform(sqs_msg, body)
    invoice = Invoice.find(body.fetch("invoice_id"))
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    pdf = InvoicePdf.new(invoice, attach_usage_statement: invoice.account.usage_billing?).render
    render_s = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).round(1)
    InvoiceMailer.with(invoice: invoice, pdf: pdf).issued.deliver_now
    Rails.logger.info(event: "invoice_mailed", invoice_id: invoice.id, pages: pdf.page_count, render_s: render_s,
                      receive_count: sqs_msg.attributes["ApproximateReceiveCount"])
  end
end
