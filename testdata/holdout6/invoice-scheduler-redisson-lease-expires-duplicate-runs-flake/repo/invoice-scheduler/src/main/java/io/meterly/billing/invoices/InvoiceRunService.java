package io.meterly.billing.invoices;

import java.time.YearMonth;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class InvoiceRunService {
    private final UsageRepository usage;
    private final InvoiceRepository invoices;
    private final PdfRendererClient pdf;
    private final InvoiceMailer mailer;

    public InvoiceRunService(UsageRepository usage, InvoiceRepository invoices, PdfRendererClient pdf, InvoiceMailer mailer) {
        this.usage = usage;
        this.invoices = invoices;
        this.pdf = pdf;
        this.mailer = mailer;
    }

    @Transactional
    public void run(String accountId, YearMonth period) {
        var lines = usage.linesFor(accountId, period);
        var invoice = Invoice.draft(accountId, period, lines);
        invoice.attachPdf(pdf.render(invoice));
        invoices.insert(invoice);
        mailer.sendInvoiceReady(invoice);
    }
}
