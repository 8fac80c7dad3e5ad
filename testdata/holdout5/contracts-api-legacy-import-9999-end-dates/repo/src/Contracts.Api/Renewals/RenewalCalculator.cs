using Contracts.Api.Domain;

namespace Contracts.Api.Renewals;

public sealed class RenewalCalculator
{
    /// <summary>Renewal date and notice deadline. Open-ended contracts have no EndDate (null).</summary>
    public RenewalInfo Calculate(Contract contract, DateTime today)
    {
        if (contract.EndDate is null)
        {
            return RenewalInfo.OpenEnded(contract.Id);
        }

        var end = contract.EndDate.Value;
        var renewalDate = end.AddDays(1);
        var noticeDeadline = end.AddDays(-contract.NoticePeriodDays);
        var daysLeft = (noticeDeadline - today.Date).Days;
        return new RenewalInfo(contract.Id, renewalDate, noticeDeadline, daysLeft, contract.AutoRenews);
    }
}
