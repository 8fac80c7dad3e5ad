package com.corvid.portal.quote;

import java.time.Duration;

import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

@Component
public class QuoteEngineClient {

    private final RestClient http;

    public QuoteEngineClient(RestClient.Builder builder, QuoteEngineProperties props) {
        this.http = builder.baseUrl(props.baseUrl()).build();
    }

    public RenewalQuote renewalQuote(String policyId) {
        return http.get().uri("/v2/renewals/{id}/quote", policyId).retrieve().body(RenewalQuote.class);
    }

    public MtaQuote midTermAdjustment(String policyId, MtaRequest req) {
        return http.post().uri("/v2/policies/{id}/mta", policyId).body(req).retrieve().body(MtaQuote.class);
    }
}
