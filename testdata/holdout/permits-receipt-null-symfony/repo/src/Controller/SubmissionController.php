<?php

declare(strict_types=1);

namespace App\Controller;

use App\Entity\PermitApplication;
use App\Message\ApplicationSubmitted;
use App\Service\ReceiptBuilder;
use App\Service\SubmissionValidator;
use Doctrine\ORM\EntityManagerInterface;
use Symfony\Bundle\FrameworkBundle\Controller\AbstractController;
use Symfony\Component\HttpFoundation\JsonResponse;
use Symfony\Component\Messenger\MessageBusInterface;
use Symfony\Component\Routing\Attribute\Route;

#[Route('/api/applications')]
final class SubmissionController extends AbstractController
{
    public function __construct(
        private readonly SubmissionValidator $validator,
        private readonly ReceiptBuilder $receipts,
        private readonly EntityManagerInterface $em,
        private readonly MessageBusInterface $bus,
    ) {
    }

    #[Route('/{id}/submit', name: 'application_submit', methods: ['POST'])]
    public function submit(PermitApplication $application): JsonResponse
    {
        $this->denyAccessUnlessGranted('SUBMIT', $application);

        $violations = $this->validator->validate($application);
        if (\count($violations) > 0) {
            return $this->json(['errors' => $violations], 422);
        }

        $application->markSubmitted(new \DateTimeImmutable());
        $receipt = $this->receipts->build($application);
        $this->em->flush();

        $this->bus->dispatch(new ApplicationSubmitted($application->getId(), $receipt->pdfPath()));

        return $this->json(['reference' => $application->getReference(), 'receipt' => $receipt->summary()], 201);
    }
}
