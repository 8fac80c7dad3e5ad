package com.harbormutual.claims.model;

import jakarta.persistence.*;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

@Entity
@Table(name = "claims")
public class Claim {
    @Id
    private UUID id;

    @Column(nullable = false, unique = true)
    private String reference;

    @Enumerated(EnumType.STRING)
    private ClaimStatus status;

    private Instant lossDate;

    @OneToMany(mappedBy = "claim", fetch = FetchType.LAZY)
    @OrderBy("uploadedAt ASC")
    private List<ClaimDocument> documents = new ArrayList<>();

    public UUID getId() { return id; }
    public String getReference() { return reference; }
    public ClaimStatus getStatus() { return status; }
    public List<ClaimDocument> getDocuments() { return documents; }
}
