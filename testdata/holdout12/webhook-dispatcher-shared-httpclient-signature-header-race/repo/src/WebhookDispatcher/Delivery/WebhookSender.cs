using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using Microsoft.Extensions.Logging;

namespace Parcelio.WebhookDispatcher.Delivery;

/// <summary>
/// Posts event payloads to subscriber endpoints, signed with the subscriber's secret.
/// Registered as a singleton; Deliver is called concurrently by the dispatch loop
/// (MaxDegreeOfParallelism = 16).
/// </summary>
public sealed class WebhookSender
{
    private readonly HttpClient _http;
    private readonly ILogger<WebhookSender> _log;

    public WebhookSender(HttpClient http, ILogger<WebhookSender> log)
    {
        _http = http;
        _log = log;
    }

    public async Task<DeliveryResult> Deliver(Subscription sub, WebhookEvent evt, CancellationToken ct)
    {
        var body = evt.ToJson();
        var timestamp = DateTimeOffset.UtcNow.ToUnixTimeSeconds().ToString();
        var signature = Sign(sub.Secret, timestamp, body);

        _http.DefaultRequestHeaders.Remove("X-Parcelio-Signature");
        _http.DefaultRequestHeaders.Add("X-Parcelio-Signature", $"t={timestamp},v1={signature}");

        using var content = new StringContent(body, Encoding.UTF8, "application/json");
        using var response = await _http.PostAsync(sub.Url, content, ct);
        if (!response.IsSuccessStatusCode)
        {
            _log.LogWarning("Webhook {EventId} to {Subscriber} failed with {Status}", evt.Id, sub.Id, (int)response.StatusCode);
            return DeliveryResult.Retry((int)response.StatusCode);
        }
        return DeliveryResult.Delivered();
    }

    private static string Sign(string secret, string timestamp, string body)
    {
        using var hmac = new HMACSHA256(Encoding.UTF8.GetBytes(secret));
        var hash = hmac.ComputeHash(Encoding.UTF8.GetBytes($"{timestamp}.{body}"));
        return Convert.ToHexString(hash).ToLowerInvariant();
    }
}
