<?php

declare(strict_types=1);

namespace App\Entity;

use Doctrine\ORM\Mapping as ORM;

#[ORM\Entity]
#[ORM\Table(name: 'permit_application')]
class PermitApplication
{
    #[ORM\Id, ORM\GeneratedValue, ORM\Column]
    private ?int $id = null;

    #[ORM\Column(length: 16, unique: true)]
    private string $reference;

    #[ORM\Column(length: 40)]
    private string $permitType;

    #[ORM\Embedded(class: Fee::class)]
    private Fee $fee;

    #[ORM\Column(nullable: true)]
    private ?\DateTimeImmutable $submittedAt = null;

    /** Null until the fee is paid; stays null for fee-waived applications. */
    #[ORM\Column(nullable: true)]
    private ?\DateTimeImmutable $paidAt = null;

    #[ORM\Column(length: 64, nullable: true)]
    private ?string $paymentReference = null;

    public function getId(): ?int { return $this->id; }
    public function getReference(): string { return $this->reference; }
    public function getPermitType(): string { return $this->permitType; }
    public function getFee(): Fee { return $this->fee; }
    public function getSubmittedAt(): ?\DateTimeImmutable { return $this->submittedAt; }
    public function getPaidAt(): ?\DateTimeImmutable { return $this->paidAt; }
    public function getPaymentReference(): ?string { return $this->paymentReference; }

    public function markSubmitted(\DateTimeImmutable $at): void
    {
        $this->submittedAt = $at;
    }
}
