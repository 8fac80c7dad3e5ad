using Grpc.Core;
using Grpc.Net.Client;
using Parcelly.CarrierRates.V1;

namespace Tracking.Api.Rates;

public sealed class RatesClient(CarrierRatesService.CarrierRatesServiceClient client, ILogger<RatesClient> logger)
{
    public async Task<RateQuote?> QuoteAsync(Shipment shipment, CancellationToken ct)
    {
        try
        {
            var reply = await client.QuoteAsync(new QuoteRequest
            {
                Origin = shipment.Origin.PostalCode,
                Destination = shipment.Destination.PostalCode,
                WeightGrams = shipment.WeightGrams,
                Service = shipment.ServiceLevel,
            }, deadline: DateTime.UtcNow.AddSeconds(2), cancellationToken: ct);
            return RateQuote.From(reply);
        }
        catch (RpcException ex)
        {
            logger.LogError(ex, "carrier-rates quote failed for shipment {ShipmentId}", shipment.Id);
            throw;
        }
    }
}
