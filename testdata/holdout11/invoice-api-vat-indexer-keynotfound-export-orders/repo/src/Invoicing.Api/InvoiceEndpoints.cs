using Bergwerk.Invoicing.Rendering;

namespace Bergwerk.Invoicing.Api;

public static class InvoiceEndpoints
{
    public static void Map(WebApplication app)
    {
        app.MapGet("/invoices/{orderId}.pdf", GetInvoicePdf);
    }

    private static async Task<IResult> GetInvoicePdf(
        string orderId, IOrderRepository orders, InvoiceBuilder builder, IPdfRenderer pdf, CancellationToken ct)
    {
        var order = await orders.FindAsync(orderId, ct);
        if (order is null)
        {
            return Results.NotFound();
        }

        var invoice = await builder.BuildAsync(order, ct);
        var bytes = await pdf.RenderAsync(invoice, ct);
        return Results.File(bytes, "application/pdf", $"{invoice.Number}.pdf");
    }
}
