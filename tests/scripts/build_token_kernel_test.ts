import { moduleText } from "../../scripts/build_token_kernel.ts";
import { TOKEN_KERNEL_BASE64 } from "../../lib/lexical/kernel/token_kernel_bytes.ts";
import { testKernelFiles } from "../support/kernel_files.ts";

testKernelFiles("token", "lib/lexical/kernel", moduleText, TOKEN_KERNEL_BASE64);
