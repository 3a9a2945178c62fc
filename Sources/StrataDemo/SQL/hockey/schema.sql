-- Hockey (the hockey sample): a league of teams, their players, and hockey equipment from the brands
-- the assignment names (Bauer, CCM, Easton, Graf, TUUK, Reebok, Sherwood, Winwell, Jofa).
-- One schema for SQLite and PostgreSQL: the placeholders in double braces are the spellings they
-- do not share, rendered per dialect by DemoSchema (Sources/StrataDemo/DemoSchema.swift).

CREATE TABLE "Teams" (
    "teamID"     {{identity}},
    "name"       VARCHAR(50) NOT NULL,
    "city"       VARCHAR(50) NOT NULL,
    "conference" VARCHAR(20) NOT NULL,
    "division"   VARCHAR(20) NOT NULL,
    "founded"    INTEGER
);

CREATE TABLE "Players" (
    "playerID"     {{identity}},
    "teamID"       INTEGER NOT NULL REFERENCES "Teams"("teamID"),
    "firstName"    VARCHAR(50) NOT NULL,
    "lastName"     VARCHAR(50) NOT NULL,
    "position"     VARCHAR(2) NOT NULL CHECK ("position" IN ('C', 'LW', 'RW', 'D', 'G')),
    "jerseyNumber" INTEGER,
    "birthDate"    {{timestamp}},
    "shoots"       VARCHAR(1) CHECK ("shoots" IN ('L', 'R'))
);

CREATE INDEX "IX_Players_teamID" ON "Players" ("teamID");

CREATE TABLE "Equipment" (
    "equipmentID" {{identity}},
    "playerID"    INTEGER REFERENCES "Players"("playerID"),
    "category"    VARCHAR(30) NOT NULL,
    "brand"       VARCHAR(30) NOT NULL,
    "model"       VARCHAR(60),
    "size"        VARCHAR(10),
    "price"       DECIMAL(8,2),
    "inStock"     BOOLEAN NOT NULL DEFAULT TRUE
);

CREATE INDEX "IX_Equipment_playerID" ON "Equipment" ("playerID");
