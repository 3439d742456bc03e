import { moduleText } from "../../scripts/build_token_kernel.ts";
import { TOKEN_KERNEL_BASE64 } from "../../lib/retrieval/kernel/token_kernel_bytes.ts";
import { testKernelFiles } from "../support/kernel_files.ts";

testKernelFiles("token", "lib/retrieval/kernel", moduleText, TOKEN_KERNEL_BASE64);
