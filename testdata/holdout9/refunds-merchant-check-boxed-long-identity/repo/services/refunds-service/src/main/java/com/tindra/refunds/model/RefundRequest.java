package com.tindra.refunds.model;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import java.math.BigDecimal;

public class RefundRequest {
    @NotNull private Long orderId;
    @NotNull private Long merchantId;
    @NotNull @Positive private BigDecimal amount;
    private String reason;
    private String agentId;

    public Long getOrderId() { return orderId; }
    public Long getMerchantId() { return merchantId; }
    public BigDecimal getAmount() { return amount; }
    public String getReason() { return reason; }
    public String getAgentId() { return agentId; }
    public void setOrderId(Long orderId) { this.orderId = orderId; }
    public void setMerchantId(Long merchantId) { this.merchantId = merchantId; }
    public void setAmount(BigDecimal amount) { this.amount = amount; }
    public void setReason(String reason) { this.reason = reason; }
    public void setAgentId(String agentId) { this.agentId = agentId; }
}
