package com.kestrel.ledger.posting;

import jakarta.validation.Valid;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/v1/accounts")
public class PostingController {

  private final PostingService service;

  public PostingController(PostingService service) {
    this.service = service;
  }

  @PostMapping("/{accountId}/postings")
  @ResponseStatus(HttpStatus.CREATED)
  public PostingResponse createPosting(@PathVariable UUID accountId,
      @Valid @RequestBody PostingRequest request) {
    return PostingResponse.of(service.post(accountId, request));
  }
}
