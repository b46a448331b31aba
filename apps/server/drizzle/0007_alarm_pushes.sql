CREATE TABLE "alarm_dispatches" (
	"alarm_id" integer PRIMARY KEY NOT NULL,
	"sends" integer NOT NULL,
	"dispatched_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alarm_sends" (
	"id" serial PRIMARY KEY NOT NULL,
	"alarm_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"device_name" text DEFAULT '' NOT NULL,
	"channel" text NOT NULL,
	"eid" integer NOT NULL,
	"user_id" integer NOT NULL,
	"contact_id" integer,
	"name" text DEFAULT '' NOT NULL,
	"recipient" text NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"content" text NOT NULL,
	"segments" integer DEFAULT 0 NOT NULL,
	"account_eid" integer DEFAULT 0 NOT NULL,
	"account_user_id" integer DEFAULT 0 NOT NULL,
	"phone_cap" integer DEFAULT 0 NOT NULL,
	"device_cap" integer DEFAULT 0 NOT NULL,
	"device_cap_key" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"idempotency_key" text NOT NULL,
	"provider_ref" text,
	"day" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "sms_daily_counters" (
	"day" text NOT NULL,
	"key" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "sms_daily_counters_day_key_pk" PRIMARY KEY("day","key")
);
--> statement-breakpoint
CREATE TABLE "alarm_contacts" (
	"id" serial PRIMARY KEY NOT NULL,
	"eid" integer NOT NULL,
	"user_id" integer NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"phone" text DEFAULT '' NOT NULL,
	"country_code" text DEFAULT '' NOT NULL,
	"email" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_sms_switches" (
	"device_id" integer NOT NULL,
	"eid" integer NOT NULL,
	"user_id" integer NOT NULL,
	"sms_flag" boolean NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "device_sms_switches_device_id_eid_user_id_pk" PRIMARY KEY("device_id","eid","user_id")
);
--> statement-breakpoint
CREATE TABLE "ent_msg_configs" (
	"eid" integer PRIMARY KEY NOT NULL,
	"sms_flag" boolean DEFAULT true NOT NULL,
	"email_flag" boolean DEFAULT true NOT NULL,
	"sms_daily" integer NOT NULL,
	"sms_machine_daily" integer NOT NULL,
	"webhook_url" text DEFAULT '' NOT NULL,
	"webhook_secret" text,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sms_accounts" (
	"eid" integer NOT NULL,
	"user_id" integer NOT NULL,
	"balance" integer DEFAULT 0 NOT NULL,
	"received" integer DEFAULT 0 NOT NULL,
	"used" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "sms_accounts_eid_user_id_pk" PRIMARY KEY("eid","user_id"),
	CONSTRAINT "sms_accounts_balance_nonnegative" CHECK ("sms_accounts"."balance" >= 0)
);
--> statement-breakpoint
CREATE TABLE "sms_stock_records" (
	"id" serial PRIMARY KEY NOT NULL,
	"operate" text NOT NULL,
	"eid" integer NOT NULL,
	"from_user_id" integer DEFAULT 0 NOT NULL,
	"to_user_id" integer DEFAULT 0 NOT NULL,
	"amount" integer NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"operator_id" integer,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_msg_configs" (
	"user_id" integer NOT NULL,
	"eid" integer NOT NULL,
	"sms_flag" boolean DEFAULT true NOT NULL,
	"email_flag" boolean DEFAULT true NOT NULL,
	"user_sms_daily" integer NOT NULL,
	"machine_sms_daily" integer NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "user_msg_configs_user_id_eid_pk" PRIMARY KEY("user_id","eid")
);
--> statement-breakpoint
ALTER TABLE "alarm_dispatches" ADD CONSTRAINT "alarm_dispatches_alarm_id_alarms_id_fk" FOREIGN KEY ("alarm_id") REFERENCES "public"."alarms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alarm_sends" ADD CONSTRAINT "alarm_sends_alarm_id_alarms_id_fk" FOREIGN KEY ("alarm_id") REFERENCES "public"."alarms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_sms_switches" ADD CONSTRAINT "device_sms_switches_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alarm_sends_alarm_recipient_key" ON "alarm_sends" USING btree ("alarm_id","channel","recipient");--> statement-breakpoint
CREATE UNIQUE INDEX "alarm_sends_key" ON "alarm_sends" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "alarm_sends_status_idx" ON "alarm_sends" USING btree ("status","updated_at");--> statement-breakpoint
CREATE INDEX "alarm_sends_records_idx" ON "alarm_sends" USING btree ("channel","eid","created_at");--> statement-breakpoint
CREATE INDEX "alarm_sends_account_idx" ON "alarm_sends" USING btree ("channel","account_eid","account_user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "alarm_contacts_owner_key" ON "alarm_contacts" USING btree ("eid","user_id","kind","country_code","phone","email");--> statement-breakpoint
CREATE INDEX "sms_stock_records_eid_idx" ON "sms_stock_records" USING btree ("eid","operate","created_at");--> statement-breakpoint
CREATE INDEX "sms_stock_records_to_idx" ON "sms_stock_records" USING btree ("to_user_id","operate","created_at");