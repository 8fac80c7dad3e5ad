using System;
using System.Threading;
using System.Threading.Tasks;
using Ledgerly.Billing.Invoices;
using Microsoft.AspNetCore.Mvc;

namespace Ledgerly.Billing.Api.Controllers;

[ApiController]
[Route("api/workspaces/{workspaceId:guid}/invoices")]
public sealed class InvoicesController : ControllerBase
{
    private readonly InvoiceService _invoices;

    public InvoicesController(InvoiceService invoices) => _invoices = invoices;

    [HttpGet("preview")]
    public async Task<ActionResult<InvoicePreview>> Preview(Guid workspaceId, CancellationToken ct)
        => Ok(await _invoices.PreviewAsync(workspaceId, ct));
}
