<?php

declare(strict_types=1);

namespace App\Service;

use App\Entity\PermitApplication;
use App\Pdf\PdfRenderer;
use Psr\Log\LoggerInterface;
use Symfony\Contracts\Translation\TranslatorInterface;

/**
 * Builds the confirmation receipt (PDF + e-mail body) an applicant gets
 * when a permit application is submitted.
 */
final class ReceiptBuilder
{
    public function __construct(
        private readonly PdfRenderer $pdf,
        private readonly TranslatorInterface $translator,
        private readonly LoggerInterface $logger,
    ) {
    }

    public function build(PermitApplication $application): Receipt
    {
        $lines = [
            'reference' => $application->getReference(),
            'permit_type' => $this->translator->trans('permit.type.'.$application->getPermitType()),
            'applicant' => $application->getApplicant()->getFullName(),
            'site_address' => $application->getSiteAddress()->format(),
            'submitted_on' => $application->getSubmittedAt()->format('d/m/Y H:i'),
        ];

        $lines += $this->feeLines($application);

        $this->logger->info('receipt built', ['reference' => $application->getReference()]);

        return new Receipt($lines, $this->pdf->render('receipt/permit.html.twig', $lines));
    }

    /** @return array<string, string> */
    private function feeLines(PermitApplication $application): array
    {
        $fee = $application->getFee();
        return [
            'fee' => $fee->isWaived() ? $this->translator->trans('fee.waived') : $fee->formatted(),
            'paid_on' => $application->getPaidAt()->format('d/m/Y'),
            'payment_reference' => $application->getPaymentReference() ?? '-',
        ];
    }
}
