using Microsoft.AspNetCore.Mvc;

namespace Loyalty.Api.Receipts;

[ApiController]
[Route("api/receipts")]
public sealed class ReceiptsController : ControllerBase
{
    [HttpGet("{id:guid}/pdf")]
    public IActionResult Pdf(System.Guid id) => File(ReceiptPdf.Render(id), "application/pdf", $"receipt-{id}.pdf");
}
