-- Hockey (seed 003): a league of teams, their players, and hockey equipment from the brands
-- the assignment names (Bauer, CCM, Easton, Graf, TUUK, Reebok, Sherwood, Winwell, Jofa).
-- SQLite dialect. Keep in step with schema.postgres.sql.

CREATE TABLE "Teams" (
    "teamID"     INTEGER PRIMARY KEY AUTOINCREMENT,
    "name"       VARCHAR(50) NOT NULL,
    "city"       VARCHAR(50) NOT NULL,
    "conference" VARCHAR(20) NOT NULL,
    "division"   VARCHAR(20) NOT NULL,
    "founded"    INTEGER
);

CREATE TABLE "Players" (
    "playerID"     INTEGER PRIMARY KEY AUTOINCREMENT,
    "teamID"       INTEGER NOT NULL REFERENCES "Teams"("teamID"),
    "firstName"    VARCHAR(50) NOT NULL,
    "lastName"     VARCHAR(50) NOT NULL,
    "position"     VARCHAR(2) NOT NULL CHECK ("position" IN ('C', 'LW', 'RW', 'D', 'G')),
    "jerseyNumber" INTEGER,
    "birthDate"    DATETIME,
    "shoots"       VARCHAR(1) CHECK ("shoots" IN ('L', 'R'))
);

CREATE INDEX "IX_Players_teamID" ON "Players" ("teamID");

CREATE TABLE "Equipment" (
    "equipmentID" INTEGER PRIMARY KEY AUTOINCREMENT,
    "playerID"    INTEGER REFERENCES "Players"("playerID"),
    "category"    VARCHAR(30) NOT NULL,
    "brand"       VARCHAR(30) NOT NULL,
    "model"       VARCHAR(60),
    "size"        VARCHAR(10),
    "price"       DECIMAL(8,2),
    "inStock"     BOOLEAN NOT NULL DEFAULT TRUE
);

CREATE INDEX "IX_Equipment_playerID" ON "Equipment" ("playerID");
