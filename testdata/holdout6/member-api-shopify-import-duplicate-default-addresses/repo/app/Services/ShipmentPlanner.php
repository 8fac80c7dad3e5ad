<?php

namespace App\Services;

use App\Models\Address;
use App\Models\Member;
use App\Models\Shipment;

class ShipmentPlanner
{
    public function __construct(private readonly CarrierRates $rates)
    {
    }

    public function nextShipment(Member $member): Shipment
    {
        $box = $member->subscription->nextBox();
        $address = Address::query()
            ->where('member_id', $member->id)
            ->where('is_default', true)
            ->sole();

        return new Shipment(
            box: $box,
            address: $address,
            rate: $this->rates->quote($address->postcode, $box->weightGrams()),
        );
    }
}
