using System;
using Microsoft.Extensions.Http.Resilience;

namespace PaymentGateway.Resilience;

public static class FraudClientPolicy
{
    public static void Configure(HttpStandardResilienceOptions o)
    {
        o.Retry.MaxRetryAttempts = 2;
        o.Retry.Delay = TimeSpan.FromMilliseconds(150);
        o.AttemptTimeout.Timeout = TimeSpan.FromSeconds(2);
        o.TotalRequestTimeout.Timeout = TimeSpan.FromSeconds(6);
    }
}
