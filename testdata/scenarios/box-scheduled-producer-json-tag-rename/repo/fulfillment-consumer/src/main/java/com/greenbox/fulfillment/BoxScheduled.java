package com.greenbox.fulfillment;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.time.LocalDate;
import java.util.List;

public record BoxScheduled(
    @JsonProperty("box_id") @NotNull String boxId,
    @NotNull String customerId,
    @NotNull LocalDate deliveryDate,
    @NotEmpty List<String> recipes,
    int servings) {}
