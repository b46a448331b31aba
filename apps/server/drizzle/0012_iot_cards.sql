CREATE TABLE "iot_card_snapshots" (
	"id" serial PRIMARY KEY NOT NULL,
	"card_id" integer NOT NULL,
	"taken_at" timestamp with time zone NOT NULL,
	"state" text NOT NULL,
	"total_kb" bigint,
	"used_kb" bigint
);
--> statement-breakpoint
CREATE TABLE "iot_cards" (
	"id" serial PRIMARY KEY NOT NULL,
	"iccid" text NOT NULL,
	"device_id" integer NOT NULL,
	"carrier" text NOT NULL,
	"msisdn" text DEFAULT '' NOT NULL,
	"imsi" text DEFAULT '' NOT NULL,
	"state" text DEFAULT 'unknown' NOT NULL,
	"plan_name" text DEFAULT '' NOT NULL,
	"total_kb" bigint,
	"used_kb" bigint,
	"expires_at" timestamp with time zone,
	"activated_at" timestamp with time zone,
	"refreshed_at" timestamp with time zone,
	"refresh_claimed_at" timestamp with time zone,
	"refresh_requested_at" timestamp with time zone,
	"last_error" text DEFAULT '' NOT NULL,
	"removed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "iot_card_snapshots" ADD CONSTRAINT "iot_card_snapshots_card_id_iot_cards_id_fk" FOREIGN KEY ("card_id") REFERENCES "public"."iot_cards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "iot_cards" ADD CONSTRAINT "iot_cards_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "iot_card_snapshots_card_time_idx" ON "iot_card_snapshots" USING btree ("card_id","taken_at");--> statement-breakpoint
CREATE UNIQUE INDEX "iot_cards_iccid_key" ON "iot_cards" USING btree ("iccid");--> statement-breakpoint
CREATE INDEX "iot_cards_device_idx" ON "iot_cards" USING btree ("device_id");