// Activation functions shared by unary.comp and glu.comp (float precision, inputs clamped where the
// closed forms overflow).
float sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }

float expm1_(float x) {
    if (abs(x) < 1e-2) {
        return x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0))));
    }
    return exp(x) - 1.0;
}

// tanh to about 3e-7 relative: near zero the odd series (the builtin is exp-based on some drivers and loses the
// relative precision there: llvmpipe gives 2x the value at 1e-8 and 6e-3 relative error at 6e-6), elsewhere
// 1 - 2 / (e^2|x| + 1), which cancels nothing once |tanh x| > 0.46; e^2|x| clamped before it overflows.
float tanh_(float x) {
    const float a = abs(x);
    float       r;
    if (a < 0.5) {
        const float x2 = a * a;
        r = a * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0 + x2 * (62.0 / 2835.0 +
            x2 * (-1382.0 / 155925.0 + x2 * (21844.0 / 6081075.0 + x2 * (-929569.0 / 638512875.0))))))));
    } else {
        r = 1.0 - 2.0 / (exp(2.0 * min(a, 15.0)) + 1.0);
    }
    return x < 0.0 ? -r : r;
}

// erf to about 1e-7 (Abramowitz and Stegun 7.1.26 refined with a longer series near zero)
float erf_(float x) {
    const float a = abs(x);
    float       r;
    if (a < 0.5) {
        const float x2 = a * a;
        r = a * 1.1283791671 * (1.0 + x2 * (-1.0 / 3.0 + x2 * (0.1 + x2 * (-1.0 / 42.0 + x2 * (1.0 / 216.0 + x2 * (-1.0 / 1320.0))))));
    } else {
        const float t = 1.0 / (1.0 + 0.3275911 * a);
        r = 1.0 - t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * exp(-a * a);
    }
    return x < 0.0 ? -r : r;
}

float gelu_tanh(float x) {
    const float c = 0.79788456080286535587989211986876; // sqrt(2 / pi)
    return 0.5 * x * (1.0 + tanh_(c * x * (1.0 + 0.044715 * x * x)));
}

