<?php

namespace App\Jobs;

use App\Models\Shipment;
use App\Services\CarrierGatewayClient;
use App\Services\PickupCalendar;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Http\Client\RequestException;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Queue\SerializesModels;
use Illuminate\Support\Carbon;
use Illuminate\Support\Facades\Log;

class BookCarrierPickup implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;

    public int $tries = 5;

    public array $backoff = [60, 300, 900, 1800];

    public function __construct(public Shipment $shipment)
    {
    }

    public function handle(CarrierGatewayClient $gateway, PickupCalendar $calendar): void
    {
        $shipment = $this->shipment->loadMissing(['depot', 'lane']);
        $depot = $shipment->depot;
        $lane = $shipment->lane;

        // First slot on or after ready_at that the depot and the carrier both work.
        $pickupDate = $calendar->nextPickupDay(
            Carbon::parse($shipment->ready_at, $depot->timezone)->startOfDay(),
            $depot,
            $lane->carrier,
        );

        // Carriers price the lane from the latest delivery date (HW-812).
        $deliverBy = $pickupDate->addWeekdays($lane->transit_days);

        $payload = [
            'reference' => $shipment->reference,
            'carrier' => $lane->carrier,
            'service' => $lane->service_code,
            'pickup_date' => $pickupDate->toDateString(),
            'pickup_window' => [$depot->dock_opens_at, $depot->dock_closes_at],
            'latest_delivery' => $deliverBy->toDateString(),
            'pieces' => $shipment->pallet_count,
            'weight_kg' => $shipment->gross_weight_kg,
            'origin' => $depot->address(),
            'destination' => $shipment->consigneeAddress(),
        ];

        try {
            $booking = $gateway->bookPickup($payload);
        } catch (RequestException $e) {
            Log::warning('pickup booking rejected by carrier gateway', [
                'shipment' => $shipment->reference,
                'carrier' => $lane->carrier,
                'status' => $e->response->status(),
                'attempt' => $this->attempts(),
                'error' => $e->response->json('error') ?? $e->getMessage(),
            ]);
            $this->release($this->backoff[min($this->attempts() - 1, count($this->backoff) - 1)]);

            return;
        }

        $shipment->forceFill([
            'carrier_booking_ref' => $booking['booking_ref'],
            'pickup_date' => $pickupDate->toDateString(),
            'status' => 'pickup_booked',
        ])->save();

        Log::info('pickup booked', [
            'shipment' => $shipment->reference,
            'carrier' => $lane->carrier,
            'booking_ref' => $booking['booking_ref'],
            'pickup_date' => $pickupDate->toDateString(),
        ]);
    }
}
