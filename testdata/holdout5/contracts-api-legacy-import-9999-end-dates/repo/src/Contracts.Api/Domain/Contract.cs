namespace Contracts.Api.Domain;

public sealed class Contract
{
    public required string Id { get; init; }
    public required string CustomerId { get; init; }
    public DateTime StartDate { get; set; }
    /// <summary>Last day of the contract; null for open-ended contracts.</summary>
    public DateTime? EndDate { get; set; }
    public int NoticePeriodDays { get; set; } = 90;
    public bool AutoRenews { get; set; }
    public ContractStatus Status { get; set; }
    public string SourceSystem { get; set; } = "clausewise";
}
