package com.tripmate.comms.push;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

@Component
public class PushGatewayClient {

    private final RestClient http;

    public PushGatewayClient(RestClient.Builder builder, @Value("${PUSH_GATEWAY_URL}") String baseUrl) {
        this.http = builder.baseUrl(baseUrl).build();
    }

    public void send(PushMessage msg) {
        http.post().uri("/v1/send").body(msg).retrieve().toBodilessEntity();
    }
}
