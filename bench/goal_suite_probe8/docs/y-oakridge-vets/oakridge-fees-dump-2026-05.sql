-- Oakridge Veterinary Practice: fee table export
-- Exported 2026-05-02 08:14 from practice system (PostgreSQL 15)
-- Prices in GBP including VAT unless vat_included = false

CREATE TABLE fees (
    code          varchar(12) PRIMARY KEY,
    description   text NOT NULL,
    species       varchar(10),          -- NULL = any species
    price         numeric(8,2) NOT NULL,
    vat_included  boolean DEFAULT true,
    valid_from    date,
    valid_to      date                  -- NULL = current
);

INSERT INTO fees VALUES ('CONS-STD', 'Standard consultation (15 min)', NULL, 52.00, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('CONS-STD-25', 'Standard consultation (15 min)', NULL, 48.00, true, '2025-01-01', '2025-12-31');
INSERT INTO fees VALUES ('CONS-OOH', 'Out-of-hours consultation', NULL, 145.00, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('VAC-DOG-PRI', 'Dog primary vaccination course (2 injections)', 'dog', 89.00, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('VAC-DOG-BST', 'Dog annual booster', 'dog', 58.00, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('VAC-CAT-PRI', 'Cat primary vaccination course (2 injections)', 'cat', 76.00, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('VAC-CAT-BST', 'Cat annual booster', 'cat', 54.00, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('VAC-RAB', 'Rabbit RHD2 + myxomatosis combined', 'rabbit', 61.50, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('NEU-CAT-F', 'Cat spay', 'cat', 118.00, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('NEU-CAT-M', 'Cat castrate', 'cat', 84.00, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('NEU-DOG-M', 'Dog castrate (under 20 kg)', 'dog', 265.00, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('NEU-DOG-M-L', 'Dog castrate (20 kg and over)', 'dog', 340.00, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('MCHIP', 'Microchip implant and registration', NULL, 24.00, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('DENT-SCALE', 'Dental scale and polish under anaesthetic', NULL, 310.00, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('NAIL', 'Nail clip (nurse clinic)', NULL, 12.50, true, '2026-01-01', NULL);
INSERT INTO fees VALUES ('CERT-TRV', 'Animal health certificate for travel', 'dog', 180.00, false, '2026-01-01', NULL);

-- Health plan (monthly direct debit)
CREATE TABLE plans (name text, species varchar(10), monthly numeric(6,2), includes text, discount_pct int);
INSERT INTO plans VALUES ('Oakridge Care Dog', 'dog', 16.50, 'annual booster, 2 consultations, flea and worm treatment', 10);
INSERT INTO plans VALUES ('Oakridge Care Cat', 'cat', 13.00, 'annual booster, 2 consultations, flea and worm treatment', 10);
-- discount_pct applies to all other fees in this table for animals on a plan (not to certificates)

-- VAT rate for rows with vat_included = false: 20 %
