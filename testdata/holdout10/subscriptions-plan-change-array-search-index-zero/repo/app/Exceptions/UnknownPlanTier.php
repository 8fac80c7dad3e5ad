<?php

namespace App\Exceptions;

class UnknownPlanTier extends \InvalidArgumentException
{
    public function __construct(?string $tier)
    {
        parent::__construct("Unknown plan tier: " . var_export($tier, true));
    }
}
