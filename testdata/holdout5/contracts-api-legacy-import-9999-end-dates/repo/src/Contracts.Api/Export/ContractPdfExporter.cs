namespace Contracts.Api.Export;

public sealed class ContractPdfExporter
{
    private const float MarginPt = 36f;
    private const string Font = "Inter";
}
