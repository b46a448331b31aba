CREATE TABLE "login_challenges" (
	"id" serial PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"user_id" integer NOT NULL,
	"keep_login" boolean DEFAULT false NOT NULL,
	"terminal_uuid" text DEFAULT '' NOT NULL,
	"terminal_type" text DEFAULT '' NOT NULL,
	"terminal_name" text DEFAULT '' NOT NULL,
	"terminal_os" text DEFAULT '' NOT NULL,
	"tries" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "qr_logins" (
	"id" serial PRIMARY KEY NOT NULL,
	"qr_token_hash" text NOT NULL,
	"check_token_hash" text NOT NULL,
	"state" text DEFAULT 'waiting' NOT NULL,
	"keep_login" boolean DEFAULT false NOT NULL,
	"oem_id" text,
	"terminal_uuid" text DEFAULT '' NOT NULL,
	"terminal_type" text DEFAULT '' NOT NULL,
	"terminal_name" text DEFAULT '' NOT NULL,
	"terminal_os" text DEFAULT '' NOT NULL,
	"ip" text DEFAULT '' NOT NULL,
	"user_id" integer,
	"confirmed_by_terminal_id" integer,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "two_factor_auth" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"secret_sealed" text NOT NULL,
	"setup_expires_at" timestamp with time zone NOT NULL,
	"enabled_at" timestamp with time zone,
	"last_step" integer DEFAULT 0 NOT NULL,
	"failed_codes" integer DEFAULT 0 NOT NULL,
	"failed_codes_since" timestamp with time zone,
	"locked_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "two_factor_recovery_codes" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"code_hash" text NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "login_challenges" ADD CONSTRAINT "login_challenges_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "qr_logins" ADD CONSTRAINT "qr_logins_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "two_factor_auth" ADD CONSTRAINT "two_factor_auth_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "two_factor_recovery_codes" ADD CONSTRAINT "two_factor_recovery_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "login_challenges_token_hash_key" ON "login_challenges" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "qr_logins_qr_token_hash_key" ON "qr_logins" USING btree ("qr_token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "qr_logins_check_token_hash_key" ON "qr_logins" USING btree ("check_token_hash");--> statement-breakpoint
CREATE INDEX "qr_logins_expires_idx" ON "qr_logins" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "two_factor_recovery_codes_user_idx" ON "two_factor_recovery_codes" USING btree ("user_id");