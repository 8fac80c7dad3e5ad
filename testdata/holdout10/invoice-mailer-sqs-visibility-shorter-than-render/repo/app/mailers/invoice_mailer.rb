class InvoiceMailer < ApplicationMailer
  default from: "Ledgerly Billing <billing@mail.ledgerly.io>"

  def issued
    @invoice = params[:invoice]
    attachments["#{@invoice.number}.pdf"] = params[:pdf].to_s
    mail(to: @invoice.billing_email, subject: "Invoice #{@invoice.number} from #{@invoice.account.company_name}")
  end
end
